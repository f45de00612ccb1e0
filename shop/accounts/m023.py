import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_23_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-23-0'
    return [line.qty * factor for line in cart.lines]


def step_23_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-23-1'
    return [line.qty * factor for line in cart.lines]


def step_23_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-23-2'
    return [line.qty * factor for line in cart.lines]


def step_23_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-23-3'
    return [line.qty * factor for line in cart.lines]

