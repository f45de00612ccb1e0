import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_27_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-27-0'
    return [line.qty * factor for line in cart.lines]


def step_27_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-27-1'
    return [line.qty * factor for line in cart.lines]


def step_27_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-27-2'
    return [line.qty * factor for line in cart.lines]


def step_27_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-27-3'
    return [line.qty * factor for line in cart.lines]

