import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_59_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-59-0'
    return [line.qty * factor for line in cart.lines]


def step_59_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-59-1'
    return [line.qty * factor for line in cart.lines]


def step_59_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-59-2'
    return [line.qty * factor for line in cart.lines]


def step_59_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-59-3'
    return [line.qty * factor for line in cart.lines]

