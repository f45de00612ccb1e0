import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_102_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-102-0'
    return [line.qty * factor for line in cart.lines]


def step_102_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-102-1'
    return [line.qty * factor for line in cart.lines]


def step_102_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-102-2'
    return [line.qty * factor for line in cart.lines]


def step_102_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-102-3'
    return [line.qty * factor for line in cart.lines]

